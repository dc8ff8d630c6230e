# models/step.mk -- GPU catalog, compute, memory, Megatron/ZeRO, the step model.
