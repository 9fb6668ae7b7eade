"""A plain list-of-lists Connect Four, written for clarity, to check the bitboard engine."""


class ReferenceConnectFour:
    def __init__(self, rows=6, cols=7, k=4):
        self.rows, self.cols, self.k = rows, cols, k
        self.cells = [[-1] * cols for _ in range(rows)]  # cells[row][col], row 0 at the bottom
        self.player = 0
        self.winner = -1
        self.moves = 0

    def legal(self):
        if self.winner >= 0:
            return []
        return [c for c in range(self.cols) if self.cells[self.rows - 1][c] == -1]

    def play(self, col):
        row = next(r for r in range(self.rows) if self.cells[r][col] == -1)
        self.cells[row][col] = self.player
        self.moves += 1
        if self._line_through(row, col):
            self.winner = self.player
        self.player ^= 1

    def _line_through(self, row, col):
        me = self.cells[row][col]
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            count = 1
            for sign in (1, -1):
                r, c = row + sign * dr, col + sign * dc
                while 0 <= r < self.rows and 0 <= c < self.cols and self.cells[r][c] == me:
                    count += 1
                    r, c = r + sign * dr, c + sign * dc
            if count >= self.k:
                return True
        return False

    def terminal(self):
        return self.winner >= 0 or self.moves == self.rows * self.cols

    def grid(self):
        return [row[:] for row in reversed(self.cells)]
