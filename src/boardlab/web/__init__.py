"""The FastAPI app and its static page."""
