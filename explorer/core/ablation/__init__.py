"""Switch attention heads off and see: one input masked beside the unmasked result (one_input), a task's capped
dev set scored with heads masked (dev), head importance as the gradient of the dev loss with respect to a gate per
head and the "prune the least important heads" curve (importance). The gates themselves are
explorer.core.attention.gates."""
