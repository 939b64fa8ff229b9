"""A PyIceberg FileIO that reads a copied warehouse where its metadata names the original.

The sample tables were written by Iceberg Java with absolute locations (the
checkout the generator ran in), and their manifests name every file by those
locations. flightd reads a copy in place by mapping the recorded location to
the folder it found the table in (README, "Tables copied from another cluster
or machine"); PyIceberg has no such mapping, so the REST tests hand it this
FileIO (catalog property ``py-io-impl``), which maps the prefix
``relocate.from`` to ``relocate.to`` and leaves every other location alone,
as Iceberg Java's oracle does with tools/javaref's RemappingFileIO. Files the
tests write lie in the copy already and pass through unchanged.
"""

from __future__ import annotations

from typing import Any

from pyiceberg.io import InputFile, OutputFile
from pyiceberg.io.pyarrow import PyArrowFile, PyArrowFileIO
from pyiceberg.typedef import Properties

#: The catalog properties that name the recorded prefix and the copy's.
FROM, TO = "relocate.from", "relocate.to"


class RelocatedFileIO(PyArrowFileIO):
    """PyArrowFileIO with the locations below ``relocate.from`` read below ``relocate.to``."""

    def __init__(self, properties: Properties) -> None:
        super().__init__(properties)
        self._from = properties.get(FROM, "")
        self._to = properties.get(TO, "")

    def _relocate(self, location: str) -> str:
        if self._from and location.startswith(self._from):
            return self._to + location[len(self._from) :]
        return location

    def new_input(self, location: str) -> PyArrowFile:
        return super().new_input(self._relocate(location))

    def new_output(self, location: str) -> PyArrowFile:
        return super().new_output(self._relocate(location))

    def delete(self, location: str | InputFile | OutputFile) -> None:
        if isinstance(location, str):
            location = self._relocate(location)
        super().delete(location)


def properties(recorded: str, copy: str) -> dict[str, Any]:
    """The catalog properties that make PyIceberg read recorded's files below copy."""
    return {"py-io-impl": f"{__name__}.{RelocatedFileIO.__name__}", FROM: recorded, TO: copy}
