"""The web app's routes, one APIRouter per part of the API; each reaches the server's
state through :data:`boardlab.web.context.Context`."""
