"""Behaviour that is the same on all four APIs, through the real SDKs with only the network replaced."""
