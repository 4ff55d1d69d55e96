"""pytest plugin (registered through the pytest11 entry point); fixtures arrive with the testing-kit issue."""
