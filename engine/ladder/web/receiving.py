"""An upload, from the HTTP layer to a queued submission.

The archive is spooled to a file under the cap (``upload_mb``), read ONCE by
:func:`engine.ladder.uploads.accept` (every header, name, count and size bounded before
anything is buffered) and stored in our normalised form as DIR/data/uploads/ID.normalised:
workers only ever see that form. An upload of the same files as one the student made in
the last minute is acknowledged with that submission, not built again. Uploads are
refused once the ladder is frozen (``ladder freeze``).
"""

import os
import shutil
import tempfile
import time
from typing import IO, NamedTuple, Optional

from .. import config, uploads
from ..store import Store

IDENTICAL_SECONDS = 60.0


class Received(NamedTuple):
    """What became of an upload: the submission (``id``, ``status``), whether it was an
    identical re-upload acknowledged (``again``), or the ``refusal`` (status, words)."""
    id: Optional[int]
    status: str
    again: bool = False
    refusal: Optional[tuple] = None


def refused(status: int, words: str) -> Received:
    return Received(None, "refused", refusal=(status, words))


def frozen_words(at: float) -> str:
    return ("submissions closed at " + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))
            + " (the ladder is frozen)")


def receive(store: Store, player_id: int, source: IO[bytes]) -> Received:
    """Store the upload read from ``source`` for ``player_id`` (see the module)."""
    settings = store.settings
    frozen = store.frozen_since()
    if frozen is not None:
        return refused(403, frozen_words(frozen))
    cap = int(settings["upload_mb"]) * 1024 * 1024
    folder = config.uploads_folder(settings)
    os.makedirs(folder, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix=".upload-", dir=folder)
    try:
        raw = os.path.join(scratch, "raw")
        with open(raw, "wb") as out:
            size = _copy_capped(source, out, cap)
        if size is None:
            return refused(413, f"the archive is larger than {settings['upload_mb']} MB")
        normal = os.path.join(scratch, "normal")
        try:
            accepted = uploads.accept(raw, normal)
        except uploads.Refused as error:
            return refused(400, f"archive refused: {error}")
        earlier = store.submissions.identical(player_id, accepted.sha256, IDENTICAL_SECONDS)
        if earlier is not None:
            return Received(earlier[0], earlier[1], again=True)
        submission_id = store.submissions.add(player_id, size, accepted.sha256)
        try:
            os.replace(normal, config.upload_path(settings, submission_id))
        except OSError:
            store.submissions.drop(submission_id)
            raise
        store.submissions.queue(submission_id)
        return Received(submission_id, "queued")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _copy_capped(source: IO[bytes], out: IO[bytes], cap: int) -> Optional[int]:
    """Copy ``source`` into ``out``; its size, or None past ``cap`` bytes."""
    size = 0
    while True:
        chunk = source.read(1 << 16)
        if not chunk:
            return size
        size += len(chunk)
        if size > cap:
            return None
        out.write(chunk)
