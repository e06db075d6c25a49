# costmodel: gpt3-175b on 1024 x a100-80gb (fat-tree): predicted step 16.44 s, 201.1 TFLOP/s per GPU, MFU 64.5%
--tensor-model-parallel-size 8 \
--pipeline-model-parallel-size 4 \
--num-layers-per-virtual-pipeline-stage 1 \
--context-parallel-size 1 \
--sequence-parallel \
--tp-comm-overlap \
--micro-batch-size 4 \
--global-batch-size 1536 \
--seq-length 2048 \
--use-distributed-optimizer \
--overlap-grad-reduce \
--overlap-param-gather \
--bf16

# costmodel: gpt3-175b on 1024 x a100-80gb (fat-tree): predicted step 16.47 s, 200.7 TFLOP/s per GPU, MFU 64.3%
--tensor-model-parallel-size 8 \
--pipeline-model-parallel-size 4 \
--num-layers-per-virtual-pipeline-stage 2 \
--context-parallel-size 1 \
--sequence-parallel \
--tp-comm-overlap \
--micro-batch-size 4 \
--global-batch-size 1536 \
--seq-length 2048 \
--use-distributed-optimizer \
--overlap-grad-reduce \
--overlap-param-gather \
--bf16
