"""The upload steps of ``files_upload_v2`` as Slack answers them (docs/slack-rules.md
[files-upload]): ``files.getUploadURLExternal`` hands out an upload URL on the
fake, the bytes are POSTed there (``/upload/<file id>``, answered "OK - <n>"),
and ``files.completeUploadExternal`` shares the uploaded files in a
conversation, which must be a ``C…``/``G…``/``D…`` id (a user id is refused).

A mixin of ``tests.strict.methods.SlackMethods`` (so of ``tests.fakeslack.FakeSlack``);
needs ``base_url``, ``_reject``, ``_cond``, ``history`` and ``_ts``/``_base_ts``.
``tests.strict.wire`` hands the bytes POSTed to ``/upload/<id>`` to ``upload``.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

CHANNEL_ID = re.compile(r"^[CGD][A-Z0-9]{8,}$")
FILE_MAX = 1_000_000  # snippet_too_large above 1 MB (docs/slack-rules.md [files-upload])


class FileMethods:
    """``files.*`` answers; ``files`` holds every file by id:
    ``{"filename", "length", "content", "title", "channel"}``."""

    _file_ids = itertools.count(1)

    @property
    def files(self) -> dict[str, dict[str, Any]]:
        """Every file handed an upload URL, by id (made on first use)."""
        return self.__dict__.setdefault("_files", {})

    def _api_files_getUploadURLExternal(self, body: dict) -> dict:
        filename = str(body.get("filename") or "")
        length = str(body.get("length") or "")
        if not filename or not length.isdigit() or int(length) <= 0:
            return self._reject(
                "files.getUploadURLExternal",
                body,
                "invalid_arguments",
                ["[ERROR] filename and a positive length are required"],
            )
        if int(length) > FILE_MAX:
            return self._reject("files.getUploadURLExternal", body, "snippet_too_large", [])
        file_id = f"F0FAKE{next(self._file_ids):04d}"
        with self._cond:
            self.files[file_id] = {"filename": filename, "length": int(length), "content": None}
        return {"ok": True, "upload_url": f"{self.base_url}/upload/{file_id}", "file_id": file_id}

    def upload(self, path: str, raw: str) -> tuple[int, str]:
        """The POST of a file's bytes to its upload URL."""
        file_id = path.rsplit("/", 1)[-1]
        with self._cond:
            entry = self.files.get(file_id)
            if entry is None:
                return 404, "not found"
            if len(raw.encode("utf-8")) != entry["length"]:
                self._reject("upload", {"file": file_id}, "length_mismatch", [])
                return 400, "length mismatch"
            entry["content"] = raw
        return 200, f"OK - {entry['length']}"

    def _api_files_completeUploadExternal(self, body: dict) -> dict:
        try:
            files = json.loads(body.get("files") or "[]")
        except ValueError:
            files = None
        if not isinstance(files, list) or not files:
            return self._reject(
                "files.completeUploadExternal",
                body,
                "invalid_arguments",
                ["[ERROR] files must be a JSON array of {id, title}"],
            )
        channel = str(body.get("channel_id") or "")
        if channel and not CHANNEL_ID.match(channel):
            return self._reject(
                "files.completeUploadExternal",
                body,
                "invalid_arguments",
                ["[ERROR] failed to match all allowed schemas [json-pointer:/channel_id]"],
            )
        shared = []
        with self._cond:
            for f in files:
                entry = self.files.get(str(f.get("id")))
                if entry is None or entry["content"] is None:
                    return self._reject("files.completeUploadExternal", body, "file_not_found", [])
                entry.update(title=f.get("title"), channel=channel or None)
                shared.append({"id": f.get("id"), "name": entry["filename"], "title": f.get("title")})
                if channel:
                    ts = f"{self._base_ts + next(self._ts)}.000100"
                    self.history.setdefault(channel, []).append(
                        {
                            "type": "message",
                            "subtype": "file_share",
                            "ts": ts,
                            "files": [{"id": f.get("id")}],
                            "thread_ts": body.get("thread_ts"),
                        }
                    )
        return {"ok": True, "files": shared}
