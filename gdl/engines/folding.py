"""The native kernels of a network with the base propositions that never change in reachable states
folded (:mod:`gdl.ground.optimise`), guarded so that they stay sound in every state handed in.

The folded network agrees with the network as built in every state where the folded base propositions
have their constant values, and such states lead only to such states; the reachable states are among
them. So a playout from a state that agrees (a mask test) runs the folded kernel; from any other state
(``from_fluents`` of anything), the kernel of the whole network, built when first needed. A game where
nothing folds has one kernel.

Folding pays where a changing node is read by a gate that a constant decides (its counter moves, and
never crosses zero): hanoi's ``(clear disc1)``, always true, is read by 12 gates (see
docs/performance.md for the fanout entries a step visits, and the instructions of a playout).
"""

from __future__ import annotations

from gdl.engines.native import Kernel, flatten
from gdl.ground.optimise import constants, optimise
from gdl.ground.propnet import PropNet
from gdl.ground.simplify import KERNEL_MAX_NODES


class FoldedKernels:
    """A network's kernel for the states that agree with its reachable constants, and for the others."""

    def __init__(self, net: PropNet) -> None:
        self.net = net
        # Up to the size where the kernels' build simplifies (the analysis costs seconds above it).
        folded = constants(net) if net.size <= KERNEL_MAX_NODES else {}
        #: The folded base propositions (bit ``b`` for base proposition ``b``), and their values.
        self.mask = sum(1 << b for b in folded)
        self.values = sum(1 << b for b, value in folded.items() if value)
        #: The kernel of the states that agree (of the whole network when nothing folds).
        self.folded: Kernel = flatten(optimise(net) if folded else net)
        self._whole: Kernel | None = None if folded else self.folded

    def of(self, state: int) -> Kernel:
        """The kernel for playouts from ``state``."""
        if state & self.mask == self.values:
            return self.folded
        if self._whole is None:
            self._whole = flatten(self.net)
        return self._whole
