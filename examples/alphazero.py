"""A small AlphaZero loop on cythello, with a NumPy-only network (no framework needed).

Each iteration: the current network plays ``--games`` self-play games through the PUCT
search (all games at once, one network call per step, root noise and early move
temperature for variety), the network trains on the last few iterations' positions (8
symmetries each; the root visit counts are the policy targets, the game results the
value targets), and the new network plays matches against random play and cythello's
``easy`` preset.  The win rates by iteration are the learning curve.

    python3 examples/alphazero.py                       # ~10 iterations, a few minutes
    python3 examples/alphazero.py --iterations 20 --games 128 --simulations 100
    python3 examples/alphazero.py --torch               # the same network in PyTorch

Bring your own network: anything called as ``net(planes, legal) -> (logits, values)``
(``(n, 2, 8, 8)`` float32 and ``(n, 65)`` bool in; ``(n, 65)`` and ``(n,)`` in [-1, 1]
out) plugs into ``cythello.PUCTPlayer`` and ``selfplay.generate(evaluator=...)`` the same
way: ``TorchNet`` below wraps a PyTorch module so (``torch.no_grad()``, NumPy arrays
back).
"""
import argparse
import csv
import tempfile
import time
from pathlib import Path

import numpy as np

import cythello as cy
from cythello import selfplay


def inputs(planes, legal):
    """The network's input: the two planes and the legal placements, 192 numbers."""
    n = len(planes)
    return np.concatenate([planes.reshape(n, 128), legal[:, :64].astype(np.float32)], 1)


class Net:
    """Planes and the legal mask -> two ReLU layers -> policy logits (65) and a tanh value,
    trained by Adam on cross-entropy (policy, over the legal moves) plus squared error
    (value).  NumPy only."""

    def __init__(self, hidden=256, seed=0):
        rng = np.random.default_rng(seed)
        sizes = [(192, hidden), (hidden, hidden), (hidden, 66)]
        self.params = []
        for fan_in, fan_out in sizes:
            self.params += [rng.normal(0, np.sqrt(2 / fan_in), (fan_in, fan_out)).astype(np.float32),
                            np.zeros(fan_out, np.float32)]
        self.params[-2] *= 0.1                    # start near uniform priors, even values
        self.moments = [(np.zeros_like(p), np.zeros_like(p)) for p in self.params]
        self.steps = 0

    def forward(self, x):
        w1, b1, w2, b2, w3, b3 = self.params
        h1 = np.maximum(x @ w1 + b1, 0)
        h2 = np.maximum(h1 @ w2 + b2, 0)
        out = h2 @ w3 + b3
        return out, (x, h1, h2)

    def __call__(self, planes, legal):
        out, _ = self.forward(inputs(planes, legal))
        return out[:, :65], np.tanh(out[:, 65])

    def train_step(self, x, legal, policy, value, lr=1e-3, l2=1e-4):
        out, (x, h1, h2) = self.forward(x)
        n = len(x)
        logits = np.where(legal, out[:, :65], -np.inf)
        logits -= logits.max(1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(1, keepdims=True)
        v = np.tanh(out[:, 65])
        loss_p = -(policy * np.log(np.maximum(p, 1e-12))).sum(1).mean()
        loss_v = ((v - value) ** 2).mean()
        grad = np.zeros_like(out)
        grad[:, :65] = (p - policy) / n
        grad[:, 65] = 2 * (v - value) * (1 - v * v) / n
        w1, b1, w2, b2, w3, b3 = self.params
        g_w3, g_b3 = h2.T @ grad, grad.sum(0)
        g_h2 = (grad @ w3.T) * (h2 > 0)
        g_w2, g_b2 = h1.T @ g_h2, g_h2.sum(0)
        g_h1 = (g_h2 @ w2.T) * (h1 > 0)
        g_w1, g_b1 = x.T @ g_h1, g_h1.sum(0)
        self.steps += 1
        for i, g in enumerate([g_w1, g_b1, g_w2, g_b2, g_w3, g_b3]):
            if i % 2 == 0:
                g = g + l2 * self.params[i]
            m, s = self.moments[i]
            m *= 0.9
            m += 0.1 * g
            s *= 0.999
            s += 0.001 * g * g
            m_hat = m / (1 - 0.9 ** self.steps)
            s_hat = s / (1 - 0.999 ** self.steps)
            self.params[i] -= (lr * m_hat / (np.sqrt(s_hat) + 1e-8)).astype(np.float32)
        return loss_p, loss_v


class TorchNet:
    """The same network and training in PyTorch (``--torch``; CPU, or ``--device cuda``)."""

    def __init__(self, hidden=256, seed=0, device="cpu"):
        import torch
        torch.manual_seed(seed)
        self.torch, self.device = torch, device
        self.model = torch.nn.Sequential(
            torch.nn.Linear(192, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden),
            torch.nn.ReLU(), torch.nn.Linear(hidden, 66)).to(device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3, weight_decay=1e-4)

    def __call__(self, planes, legal):
        torch = self.torch
        with torch.no_grad():
            out = self.model(torch.from_numpy(inputs(planes, legal)).to(self.device))
            out = out.cpu().numpy()
        return out[:, :65], np.tanh(out[:, 65])

    def train_step(self, x, legal, policy, value):
        torch = self.torch
        x, legal, policy, value = (torch.from_numpy(a).to(self.device)
                                   for a in (x, legal, policy, value))
        out = self.model(x)
        log_p = torch.log_softmax(out[:, :65].masked_fill(~legal, float("-inf")), dim=1)
        loss_p = -torch.where(legal, policy * log_p, torch.zeros_like(log_p)).sum(1).mean()
        loss_v = ((torch.tanh(out[:, 65]) - value) ** 2).mean()
        self.optimizer.zero_grad()
        (loss_p + loss_v).backward()
        self.optimizer.step()
        return loss_p.item(), loss_v.item()


def training_arrays(data):
    """Inputs, legal masks, policy targets (visit shares) and value targets (results as
    -1/0/+1) of self-play rows."""
    planes = selfplay.planes(data)
    legal = np.zeros((len(planes), 65), dtype=bool)
    for i, (b, w, t) in enumerate(zip(data["black"], data["white"], data["turn"])):
        board = cy.Board.from_bitboards(int(b), int(w), int(t))
        moves = list(board.legal_moves)
        legal[i, moves] = True
    visits = data["visits"].astype(np.float32)
    policy = visits / visits.sum(1, keepdims=True)
    value = 2 * data["result"].astype(np.float32) - 1
    return inputs(planes, legal), legal, policy, value


def train(net, window, epochs, batch, rng):
    data = {k: np.concatenate([d[k] for d in window]) for k in window[0]}
    x, legal, policy, value = training_arrays(selfplay.augment(data))
    losses = []
    for _ in range(epochs):
        order = rng.permutation(len(x))
        for start in range(0, len(x), batch):
            idx = order[start:start + batch]
            losses.append(net.train_step(x[idx], legal[idx], policy[idx], value[idx]))
    return np.mean(losses, axis=0), len(x)


def win_rate(player, opponent, games, seed):
    # Balanced openings, each with both colours: the players' own strength, not the
    # openings', decides the games.
    openings = cy.balanced_openings(games // 2, seed=seed)
    result = cy.run_match(player, opponent, games=games, openings=openings)
    return (result.wins + 0.5 * result.draws) / games


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--games", type=int, default=64, help="self-play games per iteration")
    ap.add_argument("--simulations", type=int, default=64, help="PUCT simulations a move")
    ap.add_argument("--window", type=int, default=4, help="iterations of data trained on")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--eval-games", type=int, default=40, help="games against each opponent")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--csv", type=Path, help="write the learning curve here")
    ap.add_argument("--torch", action="store_true", help="the network in PyTorch")
    ap.add_argument("--device", default="cpu", help="PyTorch's device (with --torch)")
    args = ap.parse_args()

    rng = np.random.default_rng(args.seed)
    net = TorchNet(seed=args.seed, device=args.device) if args.torch else Net(seed=args.seed)
    window = []
    rows = []
    start = time.perf_counter()
    print(f"{'iter':>4} {'positions':>9} {'loss p':>7} {'loss v':>7} {'vs random':>9} "
          f"{'vs easy':>8} {'minutes':>7}")

    def evaluate(iteration, positions, losses):
        player = cy.PUCTPlayer(net, iterations=args.simulations, seed=iteration)
        vs_random = win_rate(player, cy.RandomPlayer(seed=iteration), args.eval_games,
                             seed=1000 + iteration)
        vs_easy = win_rate(player, cy.MCTSPlayer.preset("easy", seed=iteration),
                           args.eval_games, seed=2000 + iteration)
        minutes = (time.perf_counter() - start) / 60
        rows.append({"iteration": iteration, "positions": positions, "loss_policy": losses[0],
                     "loss_value": losses[1], "vs_random": vs_random, "vs_easy": vs_easy,
                     "minutes": minutes})
        print(f"{iteration:>4} {positions:>9,} {losses[0]:>7.3f} {losses[1]:>7.3f} "
              f"{vs_random:>9.0%} {vs_easy:>8.0%} {minutes:>7.1f}", flush=True)

    evaluate(0, 0, (float("nan"), float("nan")))
    for iteration in range(1, args.iterations + 1):
        with tempfile.TemporaryDirectory() as out:
            selfplay.generate(args.games, out, seed=args.seed * 10_000 + iteration,
                              evaluator=net, batch_games=args.games,
                              simulations=args.simulations, dirichlet_alpha=0.5,
                              temperature_moves=12, games_per_shard=args.games)
            window = (window + [selfplay.load(out)])[-args.window:]
        losses, positions = train(net, window, args.epochs, 256, rng)
        evaluate(iteration, positions, losses)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
