# Trains the student of scripts/distil-embedding-model.mjs: a smaller encoder that reads the
# teacher's token ids and gives the teacher's 512-d sentence vectors (loss: 1 - cosine).
#
#   python3 scripts/distil-embedding-model.py --data DIR [--d 256] [--ff 1024] [--layers 1]
#       [--heads 4] [--epochs 4] [--batch 128] [--lr 1e-3] [--val 4000] [--threads 2] [--seed 1]
#
# Reads DIR/ids.json, DIR/teacher.f32 and DIR/teacher-start.{json,bin} (the `teacher` step);
# writes DIR/student.{json,bin} (matrices as [in, out]) for the `onnx` step. The last --val texts
# are held out: their mean and 10th-percentile cosine to the teacher are printed as it trains.
# Needs torch (CPU is enough: 3 epochs of 188,000 texts took ~15 minutes on 2 cores).
import argparse, json, math, time
import numpy as np, torch, torch.nn as nn, torch.nn.functional as F

ap = argparse.ArgumentParser()
for name, default in [('d', 256), ('ff', 1024), ('layers', 1), ('heads', 4), ('batch', 128), ('val', 4000), ('threads', 2), ('seed', 1)]:
    ap.add_argument(f'--{name}', type=int, default=default)
ap.add_argument('--epochs', type=float, default=4)
ap.add_argument('--lr', type=float, default=1e-3)
ap.add_argument('--data', required=True)
a = ap.parse_args()
torch.manual_seed(a.seed); np.random.seed(a.seed); torch.set_num_threads(a.threads)

def read_tensors(base):
    meta = json.load(open(base + '.json')); flat = np.fromfile(base + '.bin', dtype='<f4')
    return meta['config'], {k: torch.from_numpy(flat[e['offset']:e['offset'] + e['length']].reshape(e['shape']).copy()) for k, e in meta['tensors'].items()}

start_config, start = read_tensors(f'{a.data}/teacher-start')
ids = json.load(open(f'{a.data}/ids.json'))
vecs = torch.from_numpy(np.fromfile(f'{a.data}/teacher.f32', dtype='<f4').reshape(-1, 512))
assert len(ids) == len(vecs), 'ids.json and teacher.f32 differ in length'
n = len(ids); train, val = list(range(n - a.val)), list(range(n - a.val, n))

class Layer(nn.Module):
    def __init__(s, d, heads, ff, eps):
        super().__init__(); s.heads = heads
        s.ln1 = nn.LayerNorm(d, eps=eps); s.qkv = nn.Linear(d, 3 * d); s.o = nn.Linear(d, d)
        s.ln2 = nn.LayerNorm(d, eps=eps); s.f1 = nn.Linear(d, ff); s.f2 = nn.Linear(ff, d)

    def forward(s, x, bias):
        B, L, D = x.shape; w = D // s.heads
        q, k, v = s.qkv(s.ln1(x)).split(D, dim=-1)
        split = lambda t: t.view(B, L, s.heads, w).transpose(1, 2)
        att = torch.softmax((split(q) * w ** -0.5) @ split(k).transpose(-1, -2) + bias, dim=-1)
        x = x + s.o((att @ split(v)).transpose(1, 2).reshape(B, L, D))
        return x + s.f2(F.relu(s.f1(s.ln2(x))))

class Student(nn.Module):
    # the teacher's shape at a smaller size (scripts/convert-embedding-model.mjs buildStudentOnnx)
    def __init__(s, d, heads, ff, layers, eps):
        super().__init__()
        table, width = start['embedding'], start['embedding'].shape[1]
        s.emb = nn.Embedding(table.shape[0], d)
        angle = torch.arange(128, dtype=torch.float32)[:, None] * start['inv_timescale'].reshape(1, -1)
        s.register_buffer('timing', torch.cat([angle.sin(), angle.cos()], dim=1)[:, :d].contiguous())
        s.layers = nn.ModuleList([Layer(d, heads, ff, eps) for _ in range(layers)])
        s.proj = nn.Linear(d, 512)
        if d == width:  # the teacher's rows (doubled, as its graph adds them twice) and layer 0's q, k, v
            s.emb.weight.data.copy_(table * 2)
            first = s.layers[0]
            first.qkv.weight.data.copy_(start['qkv_kernel'].reshape(width, 3 * width).t()); first.qkv.bias.data.copy_(start['qkv_bias'])
            first.ln1.weight.data.copy_(start['ln_scale']); first.ln1.bias.data.copy_(start['ln_bias'])

    def forward(s, x, mask):
        x = s.emb(x) + s.timing[:x.shape[1]]
        bias = ((1 - mask) * -1e9)[:, None, None, :]
        for layer in s.layers: x = layer(x, bias)
        m = mask.unsqueeze(-1)
        return F.normalize(torch.tanh(s.proj((x * m).sum(1) / m.sum(1).clamp(min=1))), dim=-1)

def batches(idx, size, shuffle):
    idx = sorted(idx, key=lambda i: len(ids[i]))  # like lengths together: little padding
    groups = [idx[i:i + size] for i in range(0, len(idx), size)]
    if shuffle: np.random.shuffle(groups)
    for g in groups:
        L = max(len(ids[i]) for i in g); x = torch.zeros(len(g), L, dtype=torch.long); m = torch.zeros(len(g), L)
        for r, i in enumerate(g): x[r, :len(ids[i])] = torch.tensor(ids[i]); m[r, :len(ids[i])] = 1
        yield x, m, vecs[g]

model = Student(a.d, a.heads, a.ff, a.layers, start_config['eps'])
opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
steps = int(a.epochs * math.ceil(len(train) / a.batch)); warm = max(1, min(500, steps // 10))
schedule = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1, (s + 1) / warm) * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))

def held_out():
    model.eval()
    with torch.no_grad(): c = torch.cat([(model(x, m) * y).sum(-1) for x, m, y in batches(val, 256, False)])
    model.train(); return f'held-out cosine mean {c.mean().item():.4f}, p10 {c.quantile(0.1).item():.4f}'

print(f'{n} texts ({len(val)} held out), {sum(p.numel() for p in model.parameters())} parameters, {steps} steps', flush=True)
began, step = time.time(), 0
while step < steps:
    for x, m, y in batches(train, a.batch, True):
        loss = (1 - (model(x, m) * y).sum(-1)).mean()
        opt.zero_grad(); loss.backward(); opt.step(); schedule.step(); step += 1
        if step % 500 == 0: print(f'step {step}/{steps}: loss {loss.item():.4f}, {time.time() - began:.0f} s; {held_out()}', flush=True)
        if step >= steps: break
print(held_out(), flush=True)

tensors, parts, offset = {}, [], 0
for name, t in model.state_dict().items():
    x = t.detach().float().numpy()
    if name.endswith('.weight') and x.ndim == 2 and name != 'emb.weight': x = x.T  # Linear: [out, in] -> [in, out]
    x = np.ascontiguousarray(x, dtype='<f4'); tensors[name] = {'shape': list(x.shape), 'offset': offset, 'length': int(x.size)}
    parts.append(x.tobytes()); offset += x.size
config = {'d': a.d, 'ff': a.ff, 'layers': a.layers, 'heads': a.heads, 'eps': start_config['eps']}
json.dump({'config': config, 'tensors': tensors}, open(f'{a.data}/student.json', 'w'))
open(f'{a.data}/student.bin', 'wb').write(b''.join(parts))
print(f'wrote {a.data}/student.json and .bin', flush=True)
