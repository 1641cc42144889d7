"""Loopback fakes of the services Proctor talks to (OpenAI-compatible endpoints, GitHub)."""
