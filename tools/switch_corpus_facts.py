"""Print the facts-read figure of the corpus of real switch outputs: per output, and per switch OS.

    python -m tools.switch_corpus_facts
"""

from __future__ import annotations

from tests.switch_corpus_figure import figure, read_corpus


def main() -> None:
    readings = list(read_corpus())
    for reading in readings:
        output = reading.output
        state = f"REFUSED ({reading.refused})" if reading.refused else f"{reading.read}/{reading.present} facts read"
        print(f"{output.os:8} {output.tool}/{output.name} [{output.release}]: {state}")
        for problem in reading.misread:
            print(f"         MISREAD {problem}")
    for os_name, (outputs, read, present) in sorted(figure(readings).items()):
        share = 100.0 * read / present if present else 100.0
        print(f"{os_name:8} {outputs} outputs, {read} of {present} facts read ({share:.1f} %)")


if __name__ == "__main__":
    main()
