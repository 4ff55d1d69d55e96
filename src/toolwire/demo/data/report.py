"""Daily report: the mean temperature of data/sensor.csv."""

import csv
from pathlib import Path


def mean_temperature(path):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    values = [float(row["temperature_c"]) for row in rows]
    return sum(values) / len(values)


if __name__ == "__main__":
    here = Path(__file__).parent
    print(f"mean temperature: {mean_temperature(here / 'data' / 'sensor.csv'):.2f} C")
