# costmodel: gpt3-175b on 1024 x a100-80gb (fat-tree): predicted step 17.97 s, 184.1 TFLOP/s per GPU, MFU 59%
--tensor-model-parallel-size 4 \
--pipeline-model-parallel-size 8 \
--num-layers-per-virtual-pipeline-stage 1 \
--context-parallel-size 1 \
--sequence-parallel \
--micro-batch-size 2 \
--global-batch-size 1536 \
--seq-length 2048 \
--use-distributed-optimizer \
--overlap-grad-reduce \
--overlap-param-gather \
--bf16

# costmodel: gpt3-175b on 1024 x a100-80gb (fat-tree): predicted step 18.05 s, 183.2 TFLOP/s per GPU, MFU 58.7%
--tensor-model-parallel-size 4 \
--pipeline-model-parallel-size 8 \
--num-layers-per-virtual-pipeline-stage 1 \
--context-parallel-size 2 \
--sequence-parallel \
--micro-batch-size 4 \
--global-batch-size 1536 \
--seq-length 2048 \
--use-distributed-optimizer \
--overlap-grad-reduce \
--overlap-param-gather \
--bf16
