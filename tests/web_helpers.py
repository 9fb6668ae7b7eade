"""What the web API tests share: starting a game through the API."""


def new_game(client, **body):
    """POST /api/games (a human-human Connect Four game unless ``body`` says otherwise); its JSON."""
    body.setdefault("game", "connect4")
    body.setdefault("mode", "human-human")
    response = client.post("/api/games", json=body)
    assert response.status_code == 200, response.text
    return response.json()
