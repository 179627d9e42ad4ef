/** The tasks server's MCP contract (test/helpers/contract.ts): its tools as listed, and bad input refused clearly. */
import { describeServerContract } from "../../helpers/contract";
import { TASKS } from "./servers";

describeServerContract(TASKS);
