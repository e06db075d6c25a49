# costmodel: gpt3-175b on 1024 x a100-80gb (fat-tree): predicted step 16.92 s, 195.4 TFLOP/s per GPU, MFU 62.6%
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

# costmodel: gpt3-175b on 1024 x a100-80gb (fat-tree): predicted step 16.96 s, 195 TFLOP/s per GPU, MFU 62.5%
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
