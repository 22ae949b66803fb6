"""Measure what a real MCP client does with annotations, offline.

The command: ``python -m course_tools measure-client``.

Introduced in: docs/measure.md ("Measure a real client"); results in notebooks/02_defaults.ipynb
and docs/clients.md.
"""
