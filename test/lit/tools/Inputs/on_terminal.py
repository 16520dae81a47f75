#!/usr/bin/env python3
"""Runs a command with its stderr on a pseudo-terminal (stdout stays a pipe)
and prints what reached the terminal, "\\r" turned into line ends, then
"exit N". Usage: on_terminal.py COMMAND [ARGS...]"""
import os
import pty
import subprocess
import sys

master, slave = pty.openpty()
proc = subprocess.Popen(sys.argv[1:], stderr=slave, stdout=subprocess.DEVNULL)
os.close(slave)
data = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: the other side is closed
        break
    if not chunk:
        break
    data += chunk
rc = proc.wait()
sys.stdout.write(data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n"))
print(f"\nexit {rc}")
