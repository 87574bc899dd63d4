"""Coverage-guided fuzzing (atheris) of what hostile peers can send: frames to the host,
entries to a client. `python -m fuzz host|client -atheris_runs=N [corpus dir]`."""
