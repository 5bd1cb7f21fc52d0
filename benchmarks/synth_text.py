"""The text of synthetic pages: vocabulary, sentences, tables, formulas, diagrams and code.

Everything here is written for the benchmark; it imitates the density of a real wiki in this
format (Chinese prose with English terms, a link or bold run in most sentences, inline code
and math, wide tables) so that markdown-it-py spends as long per byte on it as on real pages.
Each function takes the page's ``random.Random`` and returns Markdown; links are supplied by
the caller as ready-made ``[text](target)`` strings.
"""

from __future__ import annotations

import random
from collections.abc import Callable

TERMS = (
    "Transformer",
    "attention",
    "policy",
    "diffusion",
    "VLA",
    "LayerNorm",
    "RL",
    "SSM",
    "humanoid",
    "imitation learning",
    "tokenizer",
    "action chunking",
    "MPC",
    "ViT",
    "PPO",
    "flow matching",
    "sim2real",
    "world model",
    "KV cache",
    "LoRA",
    "MoE",
    "behavior cloning",
    "teleoperation",
    "whole-body control",
    "reward shaping",
    "domain randomization",
    "latent dynamics",
    "cross-attention",
    "GPT",
    "BERT",
)
WORDS = (
    "注意力",
    "位置编码",
    "多头",
    "缩放点积",
    "人形机器人",
    "策略网络",
    "模仿学习",
    "残差连接",
    "序列建模",
    "长程依赖",
    "动作分块",
    "扩散模型",
    "强化学习",
    "状态空间",
    "视觉编码器",
    "语言指令",
    "关节力矩",
    "控制频率",
    "泛化能力",
    "数据效率",
    "本体感受",
    "奖励函数",
    "价值函数",
    "世界模型",
    "遥操作数据",
    "触觉信号",
    "推理延迟",
    "低层控制器",
    "双臂操作",
    "接触丰富任务",
    "步态切换",
    "域随机化",
    "潜空间",
    "预训练",
    "指令微调",
    "分布偏移",
    "复合误差",
    "执行地平线",
    "开环执行",
    "闭环反馈",
    "参数高效微调",
    "离散动作词元",
    "连续动作头",
    "判别器",
    "梯度消失",
    "归一化层",
    "前馈网络",
    "上下文长度",
    "时间集成",
    "安全过滤",
)
VERBS = ("决定了", "约束了", "放大了", "缓解了", "依赖于", "替代了", "统一了", "补充了")
LINKERS = ("因此", "相比之下", "在实践中", "换句话说", "这意味着", "需要注意的是", "从工程角度看")
SECTIONS = (
    "核心思想",
    "方法细节",
    "与机器人技术的联系",
    "实验结果",
    "局限与讨论",
    "工程实践",
    "数学形式",
    "常见误区",
    "主要技术路线",
    "设计时要注意什么",
    "和单步预测的区别",
    "部署经验",
)
IDENTIFIERS = (
    "forward()",
    "train.py",
    "torch.nn.MultiheadAttention",
    "obs_horizon",
    "action_dim=14",
    "chunk_size",
    "d_model",
    "config.yaml",
    "num_heads=8",
    "np.einsum",
    "ELU",
    "tanh",
)
INLINE_MATH = (
    "O(n^2)",
    "\\sqrt{d_k}",
    "a_t",
    "s_{t+1}",
    "\\pi_\\theta(a_t \\mid s_t)",
    "K",
    "T_o",
    "\\hat{\\pi}_k",
    "\\gamma = 0.99",
    "h",
    "d_k = 64",
    "\\mathcal{L}_{\\mathrm{BC}}",
)
DISPLAY_MATH = (
    "\\mathrm{Attention}(Q,K,V)=\\mathrm{softmax}\\left(\\frac{QK^\\top}{\\sqrt{d_k}}\\right)V",
    "\\left[a_t, a_{t+1}, \\dots, a_{t+K-1}\\right] = \\pi_\\theta(o_{t-H:t})",
    "\\mathcal{L}(\\theta) = \\mathbb{E}_{(s,a)\\sim\\mathcal{D}}\\left[\\lVert \\pi_\\theta(s) - a "
    "\\rVert_2^2\\right]",
    "J(\\pi) = \\mathbb{E}\\left[\\sum_{t=0}^{T} \\gamma^t r(s_t, a_t)\\right]",
    "x_{t-1} = \\frac{1}{\\sqrt{\\alpha_t}}\\left(x_t - \\frac{1-\\alpha_t}{\\sqrt{1-\\bar\\alpha_t}}"
    "\\epsilon_\\theta(x_t, t)\\right)",
)
ABBREVIATIONS = (
    ("MHA", "Multi-Head Attention", "多个头在不同子空间并行计算注意力"),
    ("PE", "Positional Encoding", "给无序的注意力注入顺序信息"),
    ("ACT", "Action Chunking Transformer", "一次预测一段动作的序列模型"),
    ("BC", "Behavior Cloning", "把状态直接映射到专家动作的监督学习"),
    ("WBC", "Whole-Body Control", "在约束下协调全身关节的控制层"),
    ("PPO", "Proximal Policy Optimization", "足式运动训练里最常见的策略梯度算法"),
    ("MPC", "Model Predictive Control", "滚动优化未来一段轨迹的控制方法"),
    ("VLM", "Vision-Language Model", "视觉语言理解模型，常作为 VLA 的骨干"),
    ("SSM", "State Space Model", "以线性递推建模长序列的架构"),
    ("KL", "Kullback-Leibler divergence", "衡量两个分布差异的非对称量"),
    ("DoF", "Degrees of Freedom", "机器人可独立控制的关节数"),
    ("RLHF", "RL from Human Feedback", "用人类偏好训练奖励模型再优化策略"),
)
URLS = (
    "https://arxiv.org/abs/{a}.{b}",
    "https://github.com/example-lab/{slug}",
    "https://www.youtube.com/watch?v={slug}",
    "https://openreview.net/forum?id={slug}",
)

Choose = Callable[[], str]


class PageRandom(random.Random):
    """A page's random source that also draws its words: here the small fixed vocabulary
    (``synth_vocab.RealRandom`` draws from a real one)."""

    def word(self) -> str:
        return self.choice(WORDS)

    def term(self) -> str:
        return self.choice(TERMS)

    def words(self, count: int) -> list[str]:
        return self.sample(WORDS, count)


def url(rng: PageRandom) -> str:
    slug = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(10))
    a, b = f"2{rng.randint(100, 612)}", f"{rng.randint(10000, 39999)}"
    return rng.choice(URLS).format(a=a, b=b, slug=slug)


def clause(rng: PageRandom, link: Choose) -> str:
    """One clause; about half carry markup (a link, bold beside CJK punctuation, code, math)."""
    w1, w2, term = rng.word(), rng.word(), rng.term()
    kind = rng.randrange(14)
    if kind == 0:
        return f"{w1}{rng.choice(VERBS)}{w2}的上限"
    if kind == 1:
        return f"{term} 把{w1}与{w2}放进同一个框架"
    if kind == 2:
        return f"由**「{w1}」**决定{w2}"
    if kind == 3:
        return f"**{w1}**（{term}）{rng.choice(VERBS)}{w2}"
    if kind == 4:
        return f"参见 {link()} 中关于{w1}的讨论"
    if kind == 5:
        return f"{link()} 与 {link()} 都用{w1}处理{w2}"
    if kind == 6:
        return f"实现上常用 `{rng.choice(IDENTIFIERS)}` 控制{w1}"
    if kind == 7:  # real pages write inline math as `$…$` and, as often, as `\(…\)`
        tex = rng.choice(INLINE_MATH)
        math = f"${tex}$" if rng.random() < 0.4 else "\\(" + tex + "\\)"
        return f"当 {math} 变大时，{w1}随之变化"
    if kind == 8:
        return f"{rng.choice(LINKERS)}，{w1}（{term}）比{w2}更关键"
    if kind == 9:
        return f"“{w1}”并不等于{w2}"
    if kind == 10:
        return f"原文见 <{url(rng)}>"
    if kind == 11:
        return f"*{term}* 一节给出了{w1}的消融"
    if kind == 12:
        return f"{w1}、{w2}与{rng.word()}三者相互牵制"
    return f"{w1}——尤其是 {term} 场景下的{w2}——仍需 {link()} 那样的验证"


def sentence(rng: PageRandom, link: Choose, clauses: tuple[int, int] = (2, 4)) -> str:
    parts = [clause(rng, link) for _ in range(rng.randint(*clauses))]
    return "，".join(parts) + rng.choice(("。", "。", "；", "！"))


def paragraph(rng: PageRandom, link: Choose, sentences: tuple[int, int] = (2, 4)) -> str:
    return "".join(sentence(rng, link) for _ in range(rng.randint(*sentences)))


def summary(rng: PageRandom) -> str:
    """A one-line summary: long, plain Chinese with English terms, no markup."""
    parts = [f"{rng.word()}{rng.choice(VERBS)}{rng.word()}" for _ in range(3)]
    return f"{rng.term()} 通过{'，'.join(parts)}，成为{rng.word()}的常见方案。"


def bullets(rng: PageRandom, link: Choose, count: int, numbered: bool = False) -> list[str]:
    lines = []
    for i in range(1, count + 1):
        mark = f"{i}." if numbered else "-"
        lead = f"**{rng.word()}**：" if rng.random() < 0.6 else ""
        lines.append(f"{mark} {lead}{sentence(rng, link, (1, 3))}")
    return lines


def abbreviation_table(rng: PageRandom) -> list[str]:
    rows = rng.sample(ABBREVIATIONS, rng.randint(3, 9))
    lines = ["| 缩写 | 英文全称 | 简要说明 |", "|------|----------|----------|"]
    return lines + [f"| {a} | {b} | {c} |" for a, b, c in rows]


def comparison_table(rng: PageRandom, link: Choose) -> list[str]:
    columns = rng.randint(3, 7)
    head = ["维度", *rng.words(columns - 1)]
    lines = ["| " + " | ".join(head) + " |", "|" + "------|" * columns]
    for _ in range(rng.randint(3, 7)):
        cells = [rng.word()]
        for _ in range(columns - 1):
            cells.append(
                rng.choice(
                    (
                        f"{rng.word()}，{rng.word()}",
                        f"**{rng.choice(('高', '低', '中等', '更稳'))}**",
                        link(),
                        f"\\({rng.choice(INLINE_MATH)}\\)",
                        f"{rng.term()} / {rng.term()}",
                        f"`{rng.choice(IDENTIFIERS)}`",
                    )
                )
            )
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def display_math(rng: PageRandom) -> list[str]:
    return ["$$", rng.choice(DISPLAY_MATH), "$$"]


def mermaid(rng: PageRandom) -> list[str]:
    nodes = rng.randint(4, 9)
    lines = ["```mermaid", f"flowchart {rng.choice(('TB', 'LR', 'TD'))}"]
    for i in range(nodes):
        lines.append(f'  n{i}["{rng.word()}<br/>{rng.term()}"]')
    lines.append("")
    lines += [f"  n{i} --> n{i + 1}" for i in range(nodes - 1)]
    lines += [f"  n0 -.-> n{rng.randrange(1, nodes)}" for _ in range(rng.randint(0, 2))]
    return [*lines, "```"]


def python_block(rng: PageRandom) -> list[str]:
    """An illustration (pages here do not opt in to running), like most real pages' code."""
    dim, heads = rng.choice((64, 128, 256)), rng.choice((4, 8))
    return [
        "```python",
        "import torch",
        "from torch import nn",
        "",
        "",
        f"class {rng.choice(('Chunk', 'Policy', 'Critic', 'Encoder'))}Head(nn.Module):",
        f'    """{rng.word()}：把观测映射为动作块。"""',
        "",
        f"    def __init__(self, d_model: int = {dim}, horizon: int = {rng.randint(4, 32)}):",
        "        super().__init__()",
        f"        self.attn = nn.MultiheadAttention(d_model, {heads}, batch_first=True)",
        "        self.proj = nn.Linear(d_model, horizon * 14)",
        "",
        "    def forward(self, tokens: torch.Tensor) -> torch.Tensor:",
        "        mixed, _ = self.attn(tokens, tokens, tokens)",
        "        return self.proj(mixed[:, -1]).view(tokens.shape[0], -1, 14)",
        "```",
    ]
