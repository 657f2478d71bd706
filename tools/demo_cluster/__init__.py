"""Generator of the bundled demo recording (recordings/demo).

The demo is SYNTHESIZED: a 4-node AMD Instinct MI300X + Broadcom Thor2 cluster whose command outputs are
built from the sample outputs printed in the vendor documents (Broadcom AN209 = S0, AMD guides S2/S4),
with a few faults injected so the demo shows failures with their documented hints. Run
``python -m tools.demo_cluster`` from the checkout root to regenerate it.
"""
