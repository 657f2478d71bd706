"""Measuring pairs: the rails of node pairs measured at once, and one verdict per NIC pair."""
