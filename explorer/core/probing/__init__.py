"""Layer-wise linear probes: what each layer of an encoder knows, before and after fine-tuning."""
