"""Property tests (hypothesis): inputs we did not think of.

Runs are reproducible: the seed is fixed (``--hypothesis-seed`` in pyproject.toml's pytest
options) and each property tries a bounded number of examples (the ``monapi`` profile in
conftest.py). A failure prints the smallest failing example and a ``@reproduce_failure`` blob;
rerunning the same test replays it.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monapi._native import _loads, _loads_chunked

# The deepest nesting of arrays and objects the decoder takes (serde_json's recursion limit:
# 127 levels); deeper is a ValueError (a DecodeError when it is an answer), as for any other
# body that is not JSON.
MAX_DEPTH = 127


def same(a: Any, b: Any) -> bool:
    """Equal values of the same types all the way down (1 is not 1.0, -0.0 is not 0.0), with
    object keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return math.copysign(1.0, a) == math.copysign(1.0, b) and a == b
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


# Every JSON value Python can write: integers of any size, every finite float (-0.0, the
# largest and the subnormal ones), any text (surrogate pairs written as escapes or as UTF-8,
# NUL, quotes, backslashes), nested lists and objects.
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=6) | st.dictionaries(st.text(), children, max_size=6)
    ),
    max_leaves=40,
)


@given(
    value=json_values,
    ensure_ascii=st.booleans(),
    indent=st.sampled_from([None, 0, 2]),
    chunk_nodes=st.integers(min_value=1, max_value=8),
)
def test_the_decoder_equals_json_loads(
    value: Any, ensure_ascii: bool, indent: int | None, chunk_nodes: int
) -> None:
    document = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent).encode()
    expected = json.loads(document)
    assert same(_loads(document), expected), document
    # As the blocking client decodes a large body: parsed on another thread in chunks (here of
    # a few nodes, so that a chunk ends at every place it may).
    assert same(_loads_chunked(document, chunk_nodes), expected), document


@given(
    number=st.from_regex(
        r"-?(0|[1-9][0-9]{0,40})(\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?", fullmatch=True
    )
)
def test_numbers_as_written_equal_json_loads(number: str) -> None:
    """Number texts json.dumps never writes (`-0`, `1E5`, `1.50`, long mantissas), within the
    range of a float."""
    expected = json.loads(number)
    if isinstance(expected, float) and math.isinf(expected):
        # Beyond the largest float: json.loads says inf, the decoder refuses it (a number the
        # service cannot mean).
        with pytest.raises(ValueError):
            _loads(number.encode())
        return
    assert same(_loads(number.encode()), expected), number
    assert same(_loads(f"[{number}]".encode()), [expected]), number


@given(depth=st.integers(min_value=1, max_value=MAX_DEPTH + 40), objects=st.booleans())
def test_nesting_up_to_the_limit_decodes_and_deeper_is_an_error(depth: int, objects: bool) -> None:
    opening, closing = ('{"k":', "}") if objects else ("[", "]")
    document = (opening * depth + "1" + closing * depth).encode()
    if depth <= MAX_DEPTH:
        assert same(_loads(document), json.loads(document))
        assert same(_loads_chunked(document, 3), json.loads(document))
    else:
        for decode in (_loads, lambda d: _loads_chunked(d, 3)):
            with pytest.raises(ValueError, match="recursion limit"):
                decode(document)
