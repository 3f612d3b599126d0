"""The free energies of the centroid and the MEA structure of many records in one Numba call parallel over
records: :func:`._turner_energy.structure_energy` (what ``TurnerModel.evaluate`` sums) per record.

>>> import numpy as np
>>> from bioaccel.fold import TurnerModel
>>> from bioaccel.inputs.alphabet import encode
>>> to = np.array([10, 9, 8, 7, -1, -1, -1, 3, 2, 1, 0])
>>> c, m = structure_energies(TurnerModel(), encode("GGGGAAACCCC"), np.array([0, 11]), to, to)
>>> c, m
([-450], [-450])
"""
import numpy as np
from numba import njit, prange

from ._turner_energy import structure_energy
from ._turner_tables import kernel_inputs, table_codes


@njit(cache=True, parallel=True)
def _energies(E, lxc, S, starts, c_to, m_to):
    count = starts.shape[0] - 1
    c = np.zeros(count, np.int64)
    m = np.zeros(count, np.int64)
    for r in prange(count):
        a, b = starts[r], starts[r + 1]
        if b > a:
            c[r] = structure_energy(E, lxc, S[a:b], c_to[a:b])
            m[r] = structure_energy(E, lxc, S[a:b], m_to[a:b])
    return c, m


def structure_energies(model, codes: np.ndarray, starts: np.ndarray, c_to: np.ndarray,
                       m_to: np.ndarray) -> "tuple[list, list]":
    """``(centroid units, MEA units)``: the free energies (dcal/mol, ints) of the structures ``c_to`` and
    ``m_to`` (partners local to each record, -1 unpaired) of record r, ``codes[starts[r]:starts[r + 1]]``
    (bioaccel.inputs.alphabet codes), under the Turner ``model``; the structures are taken to be valid
    (a centroid's or a MEA's: pairs of non-zero probability)."""
    E, lxc, _ = kernel_inputs(model)
    c, m = _energies(E, lxc, table_codes(np.asarray(codes, np.uint8)), np.asarray(starts, np.int64),
                     np.asarray(c_to, np.int64), np.asarray(m_to, np.int64))
    return c.tolist(), m.tolist()
