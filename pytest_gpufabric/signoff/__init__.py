"""What a customer signs: the run's plan (every item the inventory and the profiles require, written before any
selection), the merged results of a run and its retests, and the approved deviations. The verdict is a function
of these three alone, so ``gpufabric report`` can rebuild it at any time."""
