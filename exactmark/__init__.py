"""The tool that marks exact-output programs: see the module map in its docstring (to come)."""
