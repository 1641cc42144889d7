class Agent:
    def solve(self, prompt):
        return prompt
