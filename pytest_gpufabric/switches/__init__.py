"""Leaf switches: the read-only command forms each switch OS is sent, and the facts read from them."""
