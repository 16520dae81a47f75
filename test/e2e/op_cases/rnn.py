"""Recurrent layers and cells (gru/lstm/rnn_tanh/rnn_relu .input, the *_cell ops),
unrolled by legalize-to-core-aten: outputs and final states against eager.

Every option of nn.GRU/nn.LSTM/nn.RNN that reaches the exported op is covered:
stacked layers, bidirectional, batch_first, no biases, dropout between layers
in eval mode, with and without initial states, LSTM projections, unbatched
input (nn.* unsqueezes it before the op), and one model mixing them with
convolutions. The packed-sequence `.data` forms cannot be exported (their
batch sizes are data) and are refused by name; test/lit covers that.
"""
import torch
from torch import nn

from op_cases import Case


class Seq(nn.Module):
    """An nn.GRU/LSTM/RNN called with (x) or (x, h0) / (x, (h0, c0))."""

    def __init__(self, cls, state, **kw):
        super().__init__()
        self.rnn = cls(**kw)
        self.state = state

    def forward(self, x, *hs):
        if not hs:
            out, h = self.rnn(x)
        elif len(hs) == 2:
            out, h = self.rnn(x, (hs[0], hs[1]))
        else:
            out, h = self.rnn(x, hs[0])
        if isinstance(h, tuple):
            return out, h[0], h[1]
        return out, h


def seq(name, cls, x_shape, states=(), **kw):
    def make():
        return Seq(cls, bool(states), **kw)

    def inputs():
        return (torch.randn(*x_shape),) + tuple(torch.randn(*s) for s in states)

    return Case(name, make, inputs)


class CellStep(nn.Module):
    """A cell applied over a few steps (feeding its state back), or once without state."""

    def __init__(self, cls, steps, **kw):
        super().__init__()
        self.cell = cls(**kw)
        self.steps = steps

    def forward(self, x, *hs):
        state = (hs[0], hs[1]) if len(hs) == 2 else (hs[0] if hs else None)
        outs = []
        for t in range(self.steps):
            state = self.cell(x[t], state)
            outs.append(state[0] if isinstance(state, tuple) else state)
        if isinstance(state, tuple):
            return torch.stack(outs), state[1]
        return torch.stack(outs)


def cell(name, cls, steps, x_shape, states=(), **kw):
    return Case(name, lambda: CellStep(cls, steps, **kw),
                lambda: (torch.randn(*x_shape),) + tuple(torch.randn(*s) for s in states))


class SpeechLike(nn.Module):
    """conv1d front end, a 2-layer bidirectional LSTM, a GRU and a classifier
    (the shape of DeepSpeech-style acoustic models)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 16, 3, padding=1)
        self.lstm = nn.LSTM(16, 12, num_layers=2, bidirectional=True, batch_first=True)
        self.gru = nn.GRU(24, 10, batch_first=True)
        self.fc = nn.Linear(10, 5)

    def forward(self, x):  # x: [B, 8, T]
        y = torch.relu(self.conv(x)).transpose(1, 2)
        y, _ = self.lstm(y)
        y, h = self.gru(y)
        return self.fc(y).log_softmax(-1), h


class Unbatched(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(4, 6, num_layers=2, bidirectional=True)

    def forward(self, x, h):  # x: [T, 4], h: [4, 6]
        return self.gru(x, h)


class TrainDropout(nn.Module):
    """A stacked GRU whose op says train=True with dropout: random."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(4, 6, num_layers=2, dropout=0.5)

    def forward(self, x):
        w = self.gru._flat_weights
        return torch.ops.aten.gru.input(x, torch.zeros(2, x.shape[1], 6), w, True, 2, 0.5,
                                        True, False, False)


CASES = [
    # GRU
    seq("gru", nn.GRU, (6, 3, 4), input_size=4, hidden_size=8),
    seq("gru_stacked_bidir_batch_first_h0", nn.GRU, (3, 5, 4), [(4, 3, 8)],
        input_size=4, hidden_size=8, num_layers=2, bidirectional=True, batch_first=True),
    seq("gru_no_bias_h0", nn.GRU, (5, 2, 3), [(1, 2, 6)], input_size=3, hidden_size=6,
        bias=False),
    seq("gru_three_layers_dropout_eval", nn.GRU, (4, 2, 5), input_size=5, hidden_size=4,
        num_layers=3, dropout=0.4),
    seq("gru_one_step", nn.GRU, (1, 2, 3), input_size=3, hidden_size=5, bidirectional=True),
    Case("gru_unbatched_stacked_bidir", Unbatched,
         lambda: (torch.randn(5, 4), torch.randn(4, 6))),
    # LSTM
    seq("lstm", nn.LSTM, (6, 3, 4), input_size=4, hidden_size=8),
    seq("lstm_stacked_bidir_batch_first_h0c0", nn.LSTM, (2, 5, 4), [(4, 2, 7), (4, 2, 7)],
        input_size=4, hidden_size=7, num_layers=2, bidirectional=True, batch_first=True),
    seq("lstm_no_bias", nn.LSTM, (5, 2, 3), input_size=3, hidden_size=6, bias=False),
    seq("lstm_proj_stacked_bidir_h0c0", nn.LSTM, (4, 2, 5), [(4, 2, 3), (4, 2, 6)],
        input_size=5, hidden_size=6, proj_size=3, num_layers=2, bidirectional=True),
    seq("lstm_proj_no_bias_batch_first", nn.LSTM, (2, 4, 5), input_size=5, hidden_size=6,
        proj_size=2, bias=False, batch_first=True),
    # Elman RNNs
    seq("rnn_tanh_stacked_bidir_h0", nn.RNN, (5, 2, 4), [(4, 2, 6)], input_size=4,
        hidden_size=6, num_layers=2, bidirectional=True),
    seq("rnn_relu_batch_first_no_bias", nn.RNN, (3, 5, 4), input_size=4, hidden_size=6,
        nonlinearity="relu", batch_first=True, bias=False),
    seq("rnn_relu_stacked_h0", nn.RNN, (4, 2, 3), [(3, 2, 5)], input_size=3, hidden_size=5,
        num_layers=3, nonlinearity="relu"),
    # Cells
    cell("gru_cell_steps", nn.GRUCell, 3, (3, 2, 4), [(2, 6)], input_size=4, hidden_size=6),
    cell("gru_cell_no_state_no_bias", nn.GRUCell, 1, (1, 2, 4), input_size=4, hidden_size=5,
         bias=False),
    cell("lstm_cell_steps", nn.LSTMCell, 3, (3, 2, 4), [(2, 6), (2, 6)], input_size=4,
         hidden_size=6),
    cell("lstm_cell_no_state", nn.LSTMCell, 2, (2, 3, 4), input_size=4, hidden_size=5),
    cell("rnn_tanh_cell_steps", nn.RNNCell, 3, (3, 2, 4), [(2, 6)], input_size=4,
         hidden_size=6),
    cell("rnn_relu_cell_no_bias", nn.RNNCell, 2, (2, 2, 4), [(2, 5)], input_size=4,
         hidden_size=5, nonlinearity="relu", bias=False),
    cell("gru_cell_unbatched", nn.GRUCell, 2, (2, 4), [(6,)], input_size=4, hidden_size=6),
    Case("lstm_float64_bidir", lambda: Seq(nn.LSTM, False, input_size=3, hidden_size=4,
                                           bidirectional=True).double(),
         lambda: (torch.randn(3, 2, 3, dtype=torch.float64),)),
    # A model
    Case("speech_like_conv_lstm_gru", SpeechLike, lambda: (torch.randn(2, 8, 7),)),
    # Refusals
    Case("gru_train_dropout_refused", TrainDropout, lambda: (torch.randn(3, 2, 4),),
         refused=r"aten::gru.input.*dropout in training mode"),
]
