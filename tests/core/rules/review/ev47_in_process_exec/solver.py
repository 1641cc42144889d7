def solve(grid, constants):
    return grid
