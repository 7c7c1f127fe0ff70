"""Authoring the course: stubs and notebooks generated from solutions, and the student kit."""
