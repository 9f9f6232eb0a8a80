#if Observability
#endif
