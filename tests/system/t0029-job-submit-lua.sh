#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# JobSubmitPlugins=lua: a site's job_submit.lua, written for Slurm, runs on
# every submission through Debian's Lua: it sets defaults (an unset
# time_limit reads slurm.NO_VAL; the job gets the minutes it sets), talks to
# the user (slurm.log_user, slurm.user_msg, printed by sbatch), refuses
# with Slurm's ESLURM codes and their messages, and a field Spur does not
# carry is refused by name rather than dropped. A changed script is used
# from the next submission on. Another plugin is refused at start.
. "$(dirname "$0")/lib.sh"
cd "$T"
write_conf 1 gpu:mi300x:8
echo "JobSubmitPlugins=lua" >>slurm.conf
cat >job_submit.lua <<'LUA'
function slurm_job_submit(job_desc, part_list, submit_uid)
	if job_desc.time_limit == slurm.NO_VAL then
		slurm.log_user("no time limit given: 30 minutes set")
		job_desc.time_limit = 30
	end
	if job_desc.account == nil then job_desc.account = "physics" end
	if part_list["gpu"] == nil then return slurm.ERROR end
	if job_desc.name == "forbidden" then
		slurm.user_msg("jobs named %s are not allowed here", job_desc.name)
		return slurm.ESLURM_ACCESS_DENIED
	end
	if job_desc.name == "mail" then job_desc.mail_user = "someone@example.org" end
	slurm.log_info("submission from uid %d", submit_uid)
	return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
	return slurm.SUCCESS
end
LUA
start_ctld
start_agents 1
check "the node registers" wait_until 20 nodes_idle 1
j=$(sbatch --parsable --hold --wrap true 2>err1)
check "sbatch prints the script's message to the user" grep -qx 'sbatch: no time limit given: 30 minutes set' err1
check "an unset time limit becomes the script's 30 minutes" sh -c "scontrol show job $j | grep -q 'TimeLimit=00:30:00'"
check "an unset account becomes the script's" sh -c "scontrol show job $j | grep -q 'Account=physics'"
j2=$(sbatch --parsable --hold -t 5 -A chem --wrap true 2>/dev/null)
check "what the user gave is kept" sh -c "scontrol show job $j2 | grep -q 'TimeLimit=00:05:00' && scontrol show job $j2 | grep -q 'Account=chem'"
sbatch --hold -t 5 -J forbidden --wrap true >out2 2>err2
rc=$?
check "a refusal fails sbatch with Slurm's message for the code" \
	sh -c "[ $rc = 1 ] && grep -qx 'sbatch: error: Batch job submission failed: Access/permission denied' err2"
check "... after the script's words to the user" grep -qx 'sbatch: error: jobs named forbidden are not allowed here' err2
sbatch --hold -t 5 -J mail --wrap true >/dev/null 2>err3
check "a field Spur does not carry is refused by name" grep -q 'job_desc.mail_user is not supported by Spur' err3
check "the controller logs the script's slurm.log_info" grep -q 'job_submit.lua: submission from uid' ctld.log
sed -i 's/"physics"/"biology"/' job_submit.lua
touch -d '+2 seconds' job_submit.lua
j3=$(sbatch --parsable --hold -t 5 --wrap true 2>/dev/null)
check "a changed script is used from the next submission" sh -c "scontrol show job $j3 | grep -q 'Account=biology'"
stop_all
sed -i 's/^JobSubmitPlugins=lua/JobSubmitPlugins=all_partitions/' slurm.conf
out=$("$BUILD/src/ctld/spurctld" -f "$T/slurm.conf" -L "$T/ctld2.log" 2>&1)
rc=$?
check "another job submit plugin stops the controller, named" \
	sh -c "[ $rc = 1 ] && echo '$out' | grep -q 'JobSubmitPlugins=all_partitions is not supported'"
finish
