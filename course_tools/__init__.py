"""The instructor's and operator's tools of the MCP tool-annotations course.

`course_lib` is what learners import; this package holds what they never need:

* `grading`: ``python -m course_tools grade`` (sandboxed kernels, hidden cases, reports);
* `hub`: ``python -m course_tools hub`` (a class on one JupyterHub);
* `measure`: ``python -m course_tools measure-client`` (what a real client does with hints).

Each tool's own dependencies come with an extra (``pip install -e ".[grade]"``, ``[hub]``,
``[measure]``); a tool whose extra is missing says which line to run (`requirements`).
`course_tools` may import `course_lib`; `course_lib` never imports `course_tools`.
"""
