"""Writing interactions: TSV with a header, JSON Lines (same field names), bedGraph profiles."""
import json

FORMATS = ("tsv", "json")


def columns(windowed_query, windowed_target, structure):
    names = ["query", "target", "score", "query_fold", "target_fold"]
    if windowed_query:
        names += ["query_start", "query_end"]
    if windowed_query or windowed_target:
        names += ["target_start", "target_end"]
    if structure:
        names += ["structure", "intermolecular"]
    return names


def record(item, names):
    """The fields of ``item`` (an Interaction) named in ``names``, as plain Python values."""
    row = {}
    for name in names:
        if name == "intermolecular":
            row[name] = [list(pair) for pair in item.inter]
        else:
            row[name] = getattr(item, name)
    return row


def _text(value):
    if isinstance(value, list):  # intermolecular pairs: query:target, 0-based
        return ",".join(f"{q}:{t}" for q, t in value) or "-"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


class TsvWriter:
    def __init__(self, handle, names):
        self.handle, self.names = handle, names
        handle.write("\t".join(names) + "\n")

    def write(self, item):
        row = record(item, self.names)
        self.handle.write("\t".join(_text(row[name]) for name in self.names) + "\n")


class JsonWriter:
    def __init__(self, handle, names):
        self.handle, self.names = handle, names

    def write(self, item):
        self.handle.write(json.dumps(record(item, self.names)) + "\n")


WRITERS = {"tsv": TsvWriter, "json": JsonWriter}
