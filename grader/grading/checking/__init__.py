"""Checks and verdicts. Side: trusted process: markers, failures, reference runs, inputs."""
