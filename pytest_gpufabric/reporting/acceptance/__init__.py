"""The acceptance report a customer signs: ``results.jsonl`` (and the recording) in; HTML, XLSX, CSV, PDF out.

One table model (pandas frames, ``model``) stands behind every format; the report never reads pytest
internals, so it can be rebuilt from any results file at any time (``gpufabric report``).
"""
