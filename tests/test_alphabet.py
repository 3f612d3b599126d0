import numpy as np
import pytest

from bioaccel.inputs.alphabet import decode, encode, first_invalid
from bioaccel.errors import InputError


def test_codes_t_as_u_and_lower_case():
    assert encode("ACGUT").tolist() == [0, 1, 2, 3, 3]
    assert encode("acgut").tolist() == [0, 1, 2, 3, 3]


def test_iupac_codes_are_other():
    assert set(encode("NRYKMSWBDHVnry").tolist()) == {4}
    assert decode(encode("ACGTN")) == "ACGUN"


@pytest.mark.parametrize("bad, pos", [("ACGX", 4), ("A-C", 2), ("AC GU", 3), ("É", 1)])
def test_invalid_letter_names_position(bad, pos):
    with pytest.raises(InputError, match=f"position {pos}"):
        encode(bad, where="record 'x'")
    assert first_invalid(bad) == pos - 1


def test_empty_is_valid():
    assert encode("").dtype == np.uint8 and encode("").size == 0
