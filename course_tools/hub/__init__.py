"""Running the course for a class on one JupyterHub: ``python -m course_tools hub ...``.

One concept per module:

* `content`: what a learner gets (lessons and exercises, never solutions) and where it comes from;
* `config`: the ``jupyterhub_config.py`` for one machine;
* `api`: the hub's REST API, as the instructor's service uses it;
* `prestart`: every learner's server started before class;
* `learner`: a simulated learner running a notebook over the kernel protocol (benchmark, peer test);
* `process`: a hub started and stopped from Python (benchmark, peer test);
* `collect`: exercise notebooks copied out of the (attacker-controlled) homes for the grader;
* `export`: the learner distribution (no solutions) for nbgitpuller links;
* `requirements`: what is missing, said plainly;
* `cli`: the command line.

JupyterHub itself is the extra ``.[hub]``; nothing here imports it, so the default install and
the default tests work without it.

Introduced in: docs/hub.md
"""
