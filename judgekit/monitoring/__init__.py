"""Monitoring over time: metric series from the store, drift alerts, plots."""
