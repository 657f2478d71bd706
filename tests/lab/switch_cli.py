"""The switch account's ForceCommand in the switch lab: answers each command it is sent with the switch's
recorded output, logs it, and refuses every other command (and interactive logins).

Usage (sshd_config): ForceCommand PYTHON switch_cli.py OUTPUTS.json LOG.jsonl
"""

from __future__ import annotations

import json
import os
import sys


def main() -> int:
    outputs_path, log_path = sys.argv[1], sys.argv[2]
    with open(outputs_path, encoding="utf-8") as handle:
        outputs = json.load(handle)
    command = os.environ.get("SSH_ORIGINAL_COMMAND", "")
    served = command in outputs
    with open(log_path, "a", encoding="utf-8") as log:
        log.write(json.dumps({"command": command, "served": served}) + "\n")
    if not served:
        sys.stderr.write(f"% refused: this switch answers its recorded read-only commands only, not {command!r}\n")
        return 1
    sys.stdout.write(outputs[command])
    return 0


if __name__ == "__main__":
    sys.exit(main())
