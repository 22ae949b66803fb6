"""The course's hidden cases, one module per exercise (each defines ``EXERCISE``).

They are not in any notebook: learners never run them and feedback shows only their labels.
They ship with the course package so that ``python -m course_tools grade`` finds them after
``pip install -e .``; a learner who reads the repository can read them (as the solutions),
so for inputs kept secret, put modules in a private folder and pass ``--cases DIR``.
"""
