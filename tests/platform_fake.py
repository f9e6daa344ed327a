"""A platform for the class marker's own tests (tests/test_class_platforms.py), registered in
exactmark.classroom.platform_class.PLATFORMS by those tests only. Its download is a folder
holding fake.json, which lists each hand-in as exactmark/platforms/download.py's data: it
builds the Download directly, so that the tests check the class marker's wiring (unpacking,
copying, times, teams, rows, the marks handed back), never a real platform's format."""

import json
from datetime import datetime

from exactmark.platforms.download import Download, Handin, Person, Refusal

NAME = "fake"
MANIFEST = "fake.json"
WRITTEN = "fake-grades.json"
NOT_WRITTEN = ""


def looks_like(folder):
    return (folder / MANIFEST).is_file()


def read(folder, context):
    data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    handins = [Handin(given["key"], given["name"],
                      [Person(*member) for member in given["members"]],
                      {name: folder / file for name, file in given["files"].items()},
                      datetime.fromisoformat(given["submitted"]) if given.get("submitted")
                      else None, given.get("late"), [folder / old for old in given.get("older", [])])
               for given in data["handins"]]
    return Download(NAME, handins, [Refusal(*refused) for refused in data["refused"]],
                    [Person(*person) for person in data["roster"]])


def write_back(out, download, returned, context):
    """Each Returned as [id, mark, possible, comment], and what the Context said."""
    path = out / WRITTEN
    path.write_text(json.dumps({"assignment": context.assignment,
                                "expected": sorted(context.expected),
                                "returned": [[back.person.id, back.mark, back.possible,
                                              back.comment] for back in returned]}),
                    encoding="utf-8")
    return path
