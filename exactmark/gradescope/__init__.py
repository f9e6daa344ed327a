"""Gradescope's autograder for an assignment of the kit: the same cases, the same
comparison and the same feedback as `make mark`, run on the platform.

    python3 -m exactmark.gradescope.build NAME|FILE.toml [--out autograder.zip]   # the zip to upload
    python3 -m exactmark.gradescope.run [--check]           # run_autograder's entry, in the zip

`results.schema.json` is Gradescope's results.json as a JSON Schema, written from
the platform's specification."""
