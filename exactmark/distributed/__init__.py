"""Marking a class beyond one machine: the class run split into plan (the coordinator
writes one self-contained job per student), mark one (a worker, anywhere, turns a job into
a result) and collect (the coordinator, the only writer of OUT, takes each result in), with
the engines that carry jobs to workers: local (this machine), Dask distributed, and GNU
parallel over ssh. This floor never imports the class marker, Gradescope's builder, verify
or the pack: the class marker imports it."""
