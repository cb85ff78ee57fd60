"""Runs a bundle's model.onnx in ONNX Runtime for the end-to-end test of
`sumito export` (tests/e2e/onnx.rs).

    python onnx_run.py MODEL INPUTS ROWS OUT_DIR

Reads ROWS encoded positions (little-endian float32, the shape the model's
metadata gives) from INPUTS, writes each output's values as little-endian
float32 to OUT_DIR/NAME.bin, and prints the model's metadata properties and
its outputs' names and shapes as JSON.
"""

import json
import sys

import numpy as np
import onnxruntime as ort

model, inputs, rows, out_dir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
meta = session.get_modelmeta().custom_metadata_map
shape = [rows] + [int(meta[f"sumito.input.{key}"]) for key in ("planes", "height", "width")]
planes = np.fromfile(inputs, dtype="<f4").reshape(shape)
outputs = session.run(None, {meta["sumito.input.name"]: planes})
for output, values in zip(session.get_outputs(), outputs):
    values.astype("<f4").tofile(f"{out_dir}/{output.name}.bin")
print(
    json.dumps(
        {
            "metadata": meta,
            "outputs": [[o.name, o.shape] for o in session.get_outputs()],
            "onnxruntime": ort.__version__,
        }
    )
)
