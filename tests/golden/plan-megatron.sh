# costmodel: gpt3-175b on 1024 x a100-80gb (fat-tree): predicted step 21.17 s, 156.2 TFLOP/s per GPU, MFU 50.1%
# ZeRO-2 has no Megatron-LM flag: the distributed optimizer shards optimizer states (ZeRO-1)
--tensor-model-parallel-size 4 \
--pipeline-model-parallel-size 4 \
--num-layers-per-virtual-pipeline-stage 3 \
--context-parallel-size 1 \
--sequence-parallel \
--micro-batch-size 2 \
--global-batch-size 1536 \
--seq-length 2048 \
--use-distributed-optimizer \
--overlap-grad-reduce \
--overlap-param-gather \
--bf16

# costmodel: gpt3-175b on 1024 x a100-80gb (fat-tree): predicted step 21.21 s, 155.9 TFLOP/s per GPU, MFU 50%
# ZeRO-2 has no Megatron-LM flag: the distributed optimizer shards optimizer states (ZeRO-1)
--tensor-model-parallel-size 4 \
--pipeline-model-parallel-size 4 \
--num-layers-per-virtual-pipeline-stage 3 \
--context-parallel-size 2 \
--sequence-parallel \
--micro-batch-size 4 \
--global-batch-size 1536 \
--seq-length 2048 \
--use-distributed-optimizer \
--overlap-grad-reduce \
--overlap-param-gather \
--bf16
