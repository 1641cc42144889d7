def predict(rows):
    return [0.5 for _ in rows]
