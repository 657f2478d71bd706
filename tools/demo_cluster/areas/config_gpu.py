"""Demo outputs of the GPU checks (GPU-001..006): rocm-smi samples of S0 App. B, nvidia-smi samples of S1.

Injected faults, each a documented failure mode:
- node03: GPU3 missing from rocm-smi --showbus (GPU-001, S0 App. B);
- node02: GPU5 reached over PCIe instead of XGMI (GPU-002, S0 8.5.1);
- node06: the fabric manager is not running: Fabric State In Progress (GPU-004), deviceQuery
  "system not yet initialized" (GPU-005, S1 sample), NVLinks 12..17 of GPU2 inactive (GPU-003);
- node06: gdrdrv not loaded after a kernel update (GPU-006; lsmod from config_drivers).
"""

from __future__ import annotations

from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.topology import DemoNode

MISSING_GPU = {("node03", 3)}
PCIE_GPU = {("node02", 5)}
FABRIC_MANAGER_DOWN = {"node06"}
INACTIVE_NVLINKS = {("node06", 2): range(12, 18)}
NVLINK_COUNT, NVLINK_SPEED = 18, "26.562 GB/s"  # S1 NV18; nvidia-smi nvlink -s per-link speed


def _amd(node: DemoNode) -> Outputs:
    banner = "============================ ROCm System Management Interface ============================\n"
    end = "==========================================================================================\n" \
          "================================== End of ROCm SMI Log ===================================\n"
    bus = "".join(f"GPU[{s.index}]\t\t: PCI Bus: {s.gpu.upper().replace('0000:', '0000:', 1)}\n"
                  for s in node.slots if (node.name, s.index) not in MISSING_GPU)
    gpus = [f"GPU{s.index}" for s in node.slots]
    rows = []
    for i, a in enumerate(gpus):
        cells = ["0" if a == b else ("PCIE" if {(node.name, i), (node.name, j)} & PCIE_GPU else "XGMI") for j, b in enumerate(gpus)]
        rows.append(f"{a:<7}" + "".join(f"{c:<13}" for c in cells).rstrip() + "\n")
    topo = (banner + "=============================== Link Type between two GPUs ===============================\n"
            + "       " + "".join(f"{g:<13}" for g in gpus).rstrip() + "\n" + "".join(rows) + end)
    return {"rocm-smi --showbus": (banner + "======================================= PCI Bus ID =======================================\n" + bus + end, 0),
            "rocm-smi --showtopotype": (topo, 0)}


def _nvidia(node: DemoNode) -> Outputs:
    down = node.name in FABRIC_MANAGER_DOWN
    query = "index, pci.bus_id\n" + "".join(f"{s.index}, 0000{s.gpu.upper()}\n" for s in node.slots)
    gpus = [f"GPU{s.index}" for s in node.slots]
    topo = "\t" + "\t".join(gpus) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n" + "".join(
        f"{a}\t" + "\t".join("X" if a == b else "NV18" for b in gpus) + f"\t{'0-15' if i < 4 else '16-31'}\t{i // 4}\t\tN/A\n"
        for i, a in enumerate(gpus)) + "\nLegend:\n\n  X    = Self\n  NV#  = Connection traversing a bonded set of # NVLinks\n"
    nvlink = ""
    for s in node.slots:
        nvlink += f"GPU {s.index}: NVIDIA H100 80GB HBM3 (UUID: GPU-5b1c{node.number:02x}{s.index:02x}-9d75-b44d-30d6-6e9bf3b3efc4)\n"
        for link in range(NVLINK_COUNT):
            inactive = link in INACTIVE_NVLINKS.get((node.name, s.index), ())
            nvlink += f"\t Link {link}: {'<inactive>' if inactive else NVLINK_SPEED}\n"
    state, status = ("In Progress", "N/A") if down else ("Completed", "Success")
    fabric = "\n==============NVSMI LOG==============\n\nDriver Version                            : 570.133.20\nCUDA Version                              : 12.8\n\n" \
             f"Attached GPUs                             : {len(node.slots)}\n" + "".join(
                 f"GPU 0000{s.gpu.upper()}\n    Product Name                          : NVIDIA H100 80GB HBM3\n"
                 f"    Fabric\n        State                             : {state}\n        Status                            : {status}\n"
                 for s in node.slots)
    device_query = ("cudaGetDeviceCount returned 802\n-> system not yet initialized\nResult = FAIL\n" if down else
                    "deviceQuery Starting...\n\n CUDA Device Query (Runtime API) version (CUDART static linking)\n\n"
                    f"Detected {len(node.slots)} CUDA Capable device(s)\n\n"
                    + "".join(f'Device {s.index}: "NVIDIA H100 80GB HBM3"\n' for s in node.slots)
                    + "deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = 12.8, CUDA Runtime Version = 12.8, "
                    f"NumDevs = {len(node.slots)}\nResult = PASS\n")
    p2p = ("cudaGetDeviceCount returned 802\n-> system not yet initialized\n", 1) if down else (
        "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n...\nNOTE: The CUDA Samples are not meant for performance "
        "measurements. Results may vary when GPU Boost is enabled.\n", 0)
    gdrcopy = ("Total: 36, Passed: 31, Failed: 0, Waived: 5\n\nList of waived tests:\nbasic_v2_forcepci_cumemalloc\n"
               "basic_v2_forcepci_vmmalloc\nbasic_with_tokens\ndata_validation_mix_mappings_cumemalloc\n"
               "data_validation_v2_forcepci_cumemalloc\n")
    return {
        "nvidia-smi --query-gpu=index,pci.bus_id --format=csv": (query, 0),
        "nvidia-smi topo -m": (topo, 0),
        "nvidia-smi nvlink -s": (nvlink, 0),
        "systemctl is-active nvidia-fabricmanager": ("inactive\n" if down else "active\n", 3 if down else 0),
        "nvidia-smi -q": (fabric, 0),
        "deviceQuery": (device_query, 1 if down else 0),
        "p2pBandwidthLatencyTest": p2p,
        "gdrcopy_sanity": (gdrcopy, 0),
    }


def build(node: DemoNode) -> Outputs:
    return _nvidia(node) if node.vmware else _amd(node)
