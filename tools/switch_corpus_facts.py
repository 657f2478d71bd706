"""Print the facts-read figure of the corpus of real switch outputs: per output, per switch OS, and for the outputs
of the independent field test alone (with the values misread and the outputs refused).

    python -m tools.switch_corpus_facts
"""

from __future__ import annotations

from tests.switch_corpus import FIELD_TEST
from tests.switch_corpus_figure import Reading, figure, read_corpus


def _summary(title: str, readings: list[Reading]) -> None:
    print(title)
    for os_name, (outputs, read, present) in sorted(figure(readings).items()):
        share = 100.0 * read / present if present else 100.0
        of_os = [r for r in readings if os_name in ("all", r.output.os)]
        misread = sum(len(r.misread) for r in of_os)
        refused = sum(1 for r in of_os if r.refused and not r.output.refused)
        print(f"  {os_name:8} {outputs} outputs, {read} of {present} facts read ({share:.1f} %), {misread} misread, "
              f"{refused} real outputs refused")


def main() -> None:
    readings = list(read_corpus())
    for reading in readings:
        output = reading.output
        state = f"REFUSED ({reading.refused})" if reading.refused else f"{reading.read}/{reading.present} facts read"
        print(f"{output.os:8} {output.tool}/{output.name} [{output.release}]: {state}")
        for problem in reading.misread:
            print(f"         MISREAD {problem}")
    _summary("corpus", readings)
    _summary("field test (outputs the parsers had never seen)", [r for r in readings if r.output in FIELD_TEST])


if __name__ == "__main__":
    main()
