"""One variant registry per algorithm: each variant's name, the backends that have it, the name the
papers give it, and a one-line description.

The API validates ``variant=`` through it, the command line builds ``--variant``'s help and
``--list-variants`` from it, and the benchmarks name their columns after it. A name means the same
algorithm on every backend; the papers' names (CPU1, OMP2, Ours1, ...) are accepted as aliases.
Each wing declares its registries as data, in a ``variants.toml`` beside its modules, read by
:func:`load_registries`. Pure Python: the command line reads it without importing Numba.
"""
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidParameter, not_available

BACKENDS = ("cpu", "gpu")


@dataclass(frozen=True)
class Variant:
    """One algorithm variant: ``name`` as typed, ``backends`` that run it, ``paper_name`` as the
    papers call it ("" for bioaccel's own design), ``source`` (the paper's authors) and ``description``."""

    name: str
    backends: tuple
    description: str
    paper_name: str = ""
    source: str = ""

    @property
    def label(self) -> str:
        """Column name in benchmarks: ``name (paper name)``, or the name alone.

        >>> Variant("naive", ("cpu",), "as written", "CPU1").label
        'naive (CPU1)'
        """
        return f"{self.name} ({self.paper_name})" if self.paper_name else self.name


class VariantRegistry:
    """The variants of one algorithm and the default of each backend.

    >>> reg = VariantRegistry("demo", [Variant("fast", ("cpu", "gpu"), "ours"),
    ...                                Variant("naive", ("cpu",), "as written", "CPU1")],
    ...                       defaults={"cpu": "fast", "gpu": "fast"})
    >>> reg.resolve(None, "gpu"), reg.resolve("cpu1", "cpu")
    ('fast', 'naive')
    >>> reg.resolve("naive", "gpu")
    Traceback (most recent call last):
    ...
    bioaccel.errors.NotAvailable: demo variant 'naive' is not available on the gpu backend (available on: cpu)
    """

    def __init__(self, algorithm, variants, *, defaults, option="--variant"):
        self.algorithm = algorithm
        self.option = option
        self.variants = {v.name: v for v in variants}
        self.defaults = dict(defaults)
        self._aliases = {}
        for v in variants:
            for alias in (v.name, v.paper_name):
                if alias:
                    self._aliases[alias.lower()] = v.name
        for backend, name in self.defaults.items():
            assert backend in self.variants[name].backends, (backend, name)

    def __iter__(self):
        return iter(self.variants.values())

    def __getitem__(self, name) -> Variant:
        """The :class:`Variant` called ``name`` (or by a paper's alias)."""
        return self.variants[self.canonical(name)]

    def names(self, backend=None) -> tuple:
        """Variant names, those of ``backend`` only when given, the backend's default first."""
        found = [v.name for v in self if backend is None or backend in v.backends]
        first = self.defaults.get(backend)
        return tuple(sorted(found, key=lambda n: n != first))

    def backends_of(self, name: str) -> tuple:
        return self.variants[self.canonical(name)].backends

    def knows(self, name: str) -> bool:
        """Whether ``name`` is one of the variants (or a paper's alias).

        >>> demo = VariantRegistry("demo", [Variant("plain", ("cpu",), "only", "P1")], defaults={"cpu": "plain"})
        >>> demo.knows("p1"), demo.knows("warp")
        (True, False)
        """
        return str(name).lower() in self._aliases

    def canonical(self, name: str) -> str:
        """The variant's name for ``name`` (itself or a paper's alias); InvalidParameter if unknown."""
        found = self._aliases.get(str(name).lower())
        if found is None:
            raise InvalidParameter(
                f"unknown {self.algorithm} variant {name!r}; choose one of {', '.join(self.variants)} "
                f"(--list-variants shows them all)")
        return found

    def resolve(self, name, backend: str) -> str:
        """The variant to run: ``name`` checked against ``backend``; None gives the backend's default."""
        if backend not in BACKENDS:
            raise InvalidParameter(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
        if name is None:
            if backend not in self.defaults:
                raise not_available(self.algorithm, backend, sorted(self.defaults))
            return self.defaults[backend]
        if name == "":
            raise InvalidParameter(f"{self.option} is empty; choose one of {', '.join(self.variants)}")
        canonical = self.canonical(name)
        variant = self.variants[canonical]
        if backend not in variant.backends:
            raise not_available(f"{self.algorithm} variant {canonical!r}", backend, variant.backends)
        return canonical

    def help(self) -> str:
        """The ``--variant`` help text: each backend's choices, default first."""
        parts = [f"{b}: {', '.join(self.names(b))}" for b in BACKENDS if self.names(b)]
        defaults = ", ".join(f"{name} on {backend}" for backend, name in self.defaults.items())
        return (f"algorithm variant (default: {defaults}); " + "; ".join(parts)
                + "; the papers' names are accepted too (--list-variants shows all)")

    def table(self) -> str:
        """The table ``--list-variants`` prints.

        >>> print(VariantRegistry("demo", [Variant("fast", ("cpu",), "ours")], defaults={"cpu": "fast"}).table())
        variant  backends  default  paper name  description
        fast     cpu       cpu      -           ours
        """
        rows = [("variant", "backends", "default", "paper name", "description")]
        for v in self:
            default = ",".join(b for b, n in self.defaults.items() if n == v.name) or "-"
            paper = f"{v.paper_name} ({v.source})" if v.paper_name and v.source else (v.paper_name or "-")
            rows.append((v.name, ",".join(v.backends), default, paper, v.description))
        widths = [max(len(r[c]) for r in rows) for c in range(4)]
        return "\n".join("  ".join(r[c].ljust(widths[c]) for c in range(4)) + "  " + r[4] for r in rows)


def load_registries(path) -> dict:
    """The registries declared in the TOML file ``path``: a table per algorithm (``algorithm``,
    ``defaults``, an optional ``option``) with an array ``variant`` of tables (``name``, ``backends``,
    ``description``, optional ``paper_name`` and ``source``), keyed by the table's name.

    >>> import tempfile, os
    >>> text = (b'[demo]\\nalgorithm = "demo"\\ndefaults = { cpu = "fast" }\\n'
    ...         b'[[demo.variant]]\\nname = "fast"\\nbackends = ["cpu"]\\ndescription = "ours"\\n')
    >>> with tempfile.NamedTemporaryFile(suffix=".toml", delete=False) as f:
    ...     _ = f.write(text)
    >>> load_registries(f.name)["demo"].resolve(None, "cpu"); os.remove(f.name)
    'fast'
    """
    with open(path, "rb") as f:
        declared = tomllib.load(f)
    return {key: VariantRegistry(table["algorithm"],
                                 [Variant(v["name"], tuple(v["backends"]), v["description"],
                                          v.get("paper_name", ""), v.get("source", ""))
                                  for v in table["variant"]],
                                 defaults=table["defaults"], option=table.get("option", "--variant"))
            for key, table in declared.items()}


def declared_in(module_file: str, *algorithms: str) -> tuple:
    """The registries of these algorithms, as the wing of ``module_file`` declares them in its
    ``variants.toml``.

    >>> import bioaccel.fold as fold
    >>> [r.algorithm for r in declared_in(fold.__file__, "nussinov", "turner2004")]
    ['Nussinov', 'Turner 2004 MFE']
    """
    declared = load_registries(Path(module_file).with_name("variants.toml"))
    return tuple(declared[name] for name in algorithms)
