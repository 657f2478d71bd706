"""Transports: how a command reaches a node (local subprocess, SSH, replay of a recording)."""
