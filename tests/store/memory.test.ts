import { MemoryStore } from "../../router/store/index.js";
import { runStoreContract } from "../store.contract.js";

runStoreContract("memory", async () => new MemoryStore());
