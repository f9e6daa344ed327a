"""The sandbox a student's program runs in: namespaces or the fallback, cgroups, confinement."""
